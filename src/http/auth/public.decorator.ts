import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC = 'chaintags:public';

/** Opts a route out of the API key requirement (health and documentation only). */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(IS_PUBLIC, true);
