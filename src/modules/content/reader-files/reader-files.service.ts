import { Injectable } from '@nestjs/common';
import { contentError } from '../content.errors';
import { FileUrlSigner } from './file-url-signer';
import { ReaderFile, ReaderFilesRepository } from './reader-files.repository';

@Injectable()
export class ReaderFilesService {
  constructor(
    private readonly signer: FileUrlSigner,
    private readonly files: ReaderFilesRepository,
  ) {}

  /**
   * The file a signed URL names. The signature is checked first, and a URL that is not this
   * server's, or has expired, is refused without reading any content (the answer does not depend
   * on whether the file exists). Then the file is served only while its space is published.
   */
  async open(revisionId: string, fileId: string, expires: number, signature: string): Promise<ReaderFile> {
    const check = await this.signer.check(revisionId, fileId, expires, signature);
    if (check === 'invalid') throw contentError('content.file_url_invalid', 'The file URL is not valid');
    if (check === 'expired') throw contentError('content.file_url_expired', 'The file URL has expired');
    const file = await this.files.publishedFile(revisionId, fileId);
    if (!file) throw contentError('content.file_not_found', `File ${fileId} not found`);
    return file;
  }
}
