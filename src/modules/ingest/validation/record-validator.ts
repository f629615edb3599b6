import type { Instant } from '../../../core/records/brands';
import type { RecordInput } from '../../../core/records/record-input';
import type { Catalog } from './catalog';
import { PARSE_EACH, ValueChecks } from './checked-values';
import { checkRecord, RuleResult } from './record-rules';

/**
 * The one validation every record passes before it is written, whatever its source: the field
 * rules, then the references the catalog knows of. The sink applies it to everything it is given;
 * a source that wants to know earlier may call it too, with a catalog of its own.
 */
export class RecordValidator {
  /**
   * `pricedAt` dates the prices that come without `at`: the start of the run. `checks` parses every
   * value unless given a memory of them (a live source's batch: CheckedValues).
   */
  constructor(
    private readonly catalog: Catalog,
    private readonly pricedAt: Instant,
    private readonly checks: ValueChecks = PARSE_EACH,
  ) {}

  /** The normalised record, or why it cannot be written. An accepted token is known to the records after it. */
  check(input: RecordInput): RuleResult {
    const checked = checkRecord(input, this.pricedAt, this.checks);
    if (!checked.ok) return checked;
    const problem = this.catalog.problemWith(checked.record);
    if (problem !== undefined) return { ok: false, reason: problem };
    this.catalog.learn(checked.record);
    return checked;
  }
}
