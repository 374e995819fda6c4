import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ServerSecret } from './server-secret.entity';

@Injectable()
export class ServerSecretsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * The secret named `name`, created from `generate()` if no replica has stored one yet. Replicas
   * racing here all insert-or-ignore, then read the one row that won, so they agree.
   */
  async getOrCreate(name: string, generate: () => string): Promise<string> {
    await this.dataSource.manager.createQueryBuilder().insert().into(ServerSecret).values({ name, value: generate() }).orIgnore().execute();
    return (await this.dataSource.manager.findOneByOrFail(ServerSecret, { name })).value;
  }
}
