import { DynamicModule, Inject, Injectable, Module, OnApplicationShutdown, OnModuleInit, Optional, Provider } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { getDataSourceToken, TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { MetricsService } from '../common/metrics/metrics.service';
import { dataSourceOptions } from './data-source';
import { DATABASE_DIRECT_URL } from './direct-url';
import { usePreparedStatements } from './prepared-query';
import { ReadReplicaInterceptor } from './read-from-replica';
import { ReadReplicas } from './read-replicas';
import { SharedWritePositions } from './write-positions';

export interface DatabaseOptions {
  /** DATABASE_READ_URLS: streaming replicas for `@ReadFromReplica()` routes. */
  readUrls?: string[];
  /** DATABASE_PREPARED_STATEMENTS (default true). */
  preparedStatements?: boolean;
  /** DATABASE_DIRECT_URL (resolved): for session-level connections (LISTEN); undefined: the pool's own server. */
  directUrl?: string;
  /** REDIS_URL (and its prefix, timeout): read-your-writes positions shared by every Quire replica; undefined: in memory. */
  redis?: { url: string; keyPrefix: string; timeoutMs: number };
}

const DATABASE_OPTIONS = 'quire:databaseOptions';

/** Applies the options to the data source once it is built; opens and closes the replicas' pools. */
@Injectable()
class DatabaseSetup implements OnModuleInit, OnApplicationShutdown {
  constructor(
    @Inject(getDataSourceToken()) dataSource: DataSource,
    @Inject(DATABASE_OPTIONS) options: DatabaseOptions,
    @Optional() private readonly replicas?: ReadReplicas,
    @Optional() private readonly metrics?: MetricsService,
  ) {
    usePreparedStatements(dataSource, options.preparedStatements ?? true);
    replicas?.install(dataSource);
  }

  onModuleInit(): void {
    if (this.replicas && this.metrics) this.replicas.registerMetrics(this.metrics.registry);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.replicas?.close();
  }
}

@Module({})
export class DatabaseModule {
  static forRoot(url: string, poolSize: number, options: DatabaseOptions = {}): DynamicModule {
    const readUrls = options.readUrls ?? [];
    const replicas: Provider[] = readUrls.length
      ? [
          {
            provide: ReadReplicas,
            useValue: new ReadReplicas(readUrls, poolSize, undefined, options.redis ? new SharedWritePositions(options.redis) : undefined),
          },
          { provide: APP_INTERCEPTOR, useClass: ReadReplicaInterceptor },
        ]
      : [];
    return {
      module: DatabaseModule,
      global: true,
      // Each domain module registers its own entities with TypeOrmModule.forFeature.
      imports: [TypeOrmModule.forRoot({ ...dataSourceOptions(url, poolSize), autoLoadEntities: true, retryAttempts: 3, retryDelay: 1000 })],
      providers: [
        { provide: DATABASE_OPTIONS, useValue: options },
        { provide: DATABASE_DIRECT_URL, useValue: options.directUrl !== url ? options.directUrl : undefined },
        ...replicas,
        DatabaseSetup,
      ],
      exports: [DATABASE_DIRECT_URL, ...(readUrls.length ? [ReadReplicas] : [])],
    };
  }
}
