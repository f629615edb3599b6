import { Module } from '@nestjs/common';
import { IngestRepository } from './ingest.repository';
import { IngestService } from './ingest.service';

/** NDJSON import, used by the `import` command and the demo; no HTTP route. */
@Module({
  providers: [IngestRepository, IngestService],
  exports: [IngestService],
})
export class IngestModule {}
