import { Injectable } from '@nestjs/common';
import { EntityManager, In } from 'typeorm';
import { User } from '../../users/user.entity';
import { Blob } from '../blob.entity';
import { ContentDocument } from '../document.entity';

const CHUNK = 2000;

/** What Git Sync reads besides the tree rows: bodies and bytes in bulk, and the user a job acts for. */
@Injectable()
export class GitSyncRepository {
  async bodies(documentIds: string[], em: EntityManager): Promise<Map<string, string>> {
    const ids = [...new Set(documentIds)];
    const out = new Map<string, string>();
    for (let i = 0; i < ids.length; i += CHUNK) {
      const rows = await em.find(ContentDocument, { where: { id: In(ids.slice(i, i + CHUNK)) }, select: { id: true, markdown: true } });
      for (const row of rows) out.set(row.id, row.markdown);
    }
    return out;
  }

  /** Bytes of blobs, a few at a time (files can be large). */
  async blobs(blobIds: string[], em: EntityManager): Promise<Map<string, Buffer>> {
    const ids = [...new Set(blobIds)];
    const out = new Map<string, Buffer>();
    for (let i = 0; i < ids.length; i += 50) {
      const rows = await em
        .createQueryBuilder(Blob, 'b')
        .select(['b.id', 'b.data'])
        .where('b.id IN (:...ids)', { ids: ids.slice(i, i + 50) })
        .getMany();
      for (const row of rows) out.set(row.id, row.data);
    }
    return out;
  }

  user(userId: string, em: EntityManager): Promise<User | null> {
    return em.findOneBy(User, { id: userId });
  }
}
