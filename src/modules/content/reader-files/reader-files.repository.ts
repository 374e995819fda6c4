import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

export interface ReaderFile {
  name: string;
  contentType: string;
  blobId: string;
  data: Buffer;
}

@Injectable()
export class ReaderFilesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * A file of a revision with its bytes, only while the revision's space is shown on a published
   * site (and not deleted): one query, so a space unpublished a second ago serves nothing.
   */
  async publishedFile(revisionId: string, fileId: string): Promise<ReaderFile | null> {
    const rows: ReaderFile[] = await this.dataSource.query(
      `SELECT f.name, f.content_type AS "contentType", f.blob_id AS "blobId", b.data
         FROM revision_files f
         JOIN revisions r ON r.id = f.revision_id
         JOIN spaces s ON s.id = r.space_id AND s.deleted_at IS NULL
         JOIN blobs b ON b.id = f.blob_id
        WHERE f.revision_id = $1 AND f.file_id = $2
          AND EXISTS (SELECT 1 FROM site_spaces ss JOIN sites st ON st.id = ss.site_id WHERE ss.space_id = r.space_id AND st.published)`,
      [revisionId, fileId],
    );
    return rows[0] ?? null;
  }
}
