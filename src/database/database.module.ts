import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { dataSourceOptions } from './data-source';

@Module({})
export class DatabaseModule {
  static forRoot(url: string, poolSize: number): DynamicModule {
    return {
      module: DatabaseModule,
      // Each domain module registers its own entities with TypeOrmModule.forFeature.
      imports: [TypeOrmModule.forRoot({ ...dataSourceOptions(url, poolSize), autoLoadEntities: true, retryAttempts: 3, retryDelay: 1000 })],
    };
  }
}
