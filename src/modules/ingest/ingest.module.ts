import { Module } from '@nestjs/common';
import { IngestRepository } from './ingest.repository';
import { IngestService } from './ingest.service';
import { RecordSink } from './sink/record-sink';

/**
 * Records from sources, validated and written by one sink (README.md in this folder). The NDJSON
 * import, used by the `import` command and the demo, is its first source; no HTTP route.
 */
@Module({
  providers: [IngestRepository, RecordSink, IngestService],
  exports: [IngestService, RecordSink],
})
export class IngestModule {}
