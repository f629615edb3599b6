import { Module } from '@nestjs/common';
import { API_KEY_VERIFIER } from '../../http/auth/auth';
import { AccountsRepository } from './accounts.repository';
import { AccountsService } from './accounts.service';

@Module({
  providers: [AccountsRepository, AccountsService, { provide: API_KEY_VERIFIER, useExisting: AccountsService }],
  exports: [AccountsService, API_KEY_VERIFIER],
})
export class AccountsModule {}
