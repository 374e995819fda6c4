import { Module } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { OutboundHttpClient } from './outbound-http.client';

/** The outbound HTTP client with its SSRF guard; import this module wherever Quire calls other servers. */
@Module({
  providers: [{ provide: OutboundHttpClient, useFactory: (config: AppConfig) => new OutboundHttpClient(config), inject: [AppConfig] }],
  exports: [OutboundHttpClient],
})
export class OutboundModule {}
