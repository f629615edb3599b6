import { WholeNumber } from './query-params';

export const DEFAULT_PER_PAGE = 30;
export const MAX_PER_PAGE = 100;
export const MAX_PAGE = 1_000_000_000;

export class PerPageQueryDto {
  @WholeNumber(MAX_PER_PAGE, { description: 'Results per page.', default: DEFAULT_PER_PAGE })
  per_page: number = DEFAULT_PER_PAGE;
}

export class PageQueryDto extends PerPageQueryDto {
  @WholeNumber(MAX_PAGE, { description: 'Page number, from 1. A page past the end is an empty array.', default: 1 })
  page: number = 1;
}
