import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { dataSourceOptions } from './data-source';

@Module({})
export class DatabaseModule {
  static forRoot(url: string, poolSize: number): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [TypeOrmModule.forRoot({ ...dataSourceOptions(url, poolSize), retryAttempts: 3, retryDelay: 1000 })],
    };
  }
}
