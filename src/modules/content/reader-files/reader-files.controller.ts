import { Controller, Get, Param, Query, Req, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { NotForScripts } from '../../../common/access/script-access';
import { NotForSiteTokens } from '../../../common/access/site-access';
import { Public } from '../../../common/auth/public.decorator';
import { ReaderFileQueryDto } from './reader-file-query.dto';
import { ReaderFilesService } from './reader-files.service';

/**
 * Files of published revisions for readers' browsers, which carry no API token: the URL itself is
 * the credential (signed, expiring, pinned to revision and file). Handed out as the `downloadURL`
 * of files read with a site API token. The path names no space, so no route access applies: the
 * signature and the space's published state are the whole check.
 */
@ApiTags('content')
@Public()
@NotForScripts()
@NotForSiteTokens()
@Controller('v1/reader/files')
export class ReaderFilesController {
  constructor(private readonly files: ReaderFilesService) {}

  @Get(':revisionId/:fileId')
  @ApiOperation({ operationId: 'downloadPublishedFile', summary: "A published file's bytes, by a signed URL (no token)" })
  @ApiProduces('application/octet-stream')
  @ApiOkResponse({ description: 'The file, with its content type' })
  async download(
    @Param('revisionId') revisionId: string,
    @Param('fileId') fileId: string,
    @Query() query: ReaderFileQueryDto,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const expires = Number(query.expires);
    const file = await this.files.open(revisionId, fileId, expires, query.signature);
    const etag = `"${file.blobId}"`;
    const inline = file.contentType.startsWith('image/');
    res.set({
      // Bytes of a file in a revision never change; shared caches may keep them as long as the URL is valid.
      'Cache-Control': `public, max-age=${Math.max(0, expires - Math.floor(Date.now() / 1000))}, immutable`,
      ETag: etag,
      'Content-Disposition': `${inline ? 'inline' : 'attachment'}; filename*=UTF-8''${encodeURIComponent(file.name)}`,
      // Uploaded content must never run as a page of this origin (an SVG with a script, say).
      'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
      // The renderer's pages live on another origin: their <img> may load it.
      'Cross-Origin-Resource-Policy': 'cross-origin',
    });
    const ifNoneMatch = req.headers['if-none-match'];
    if (ifNoneMatch && ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag)) {
      res.status(304).end();
      return;
    }
    res.set({ 'Content-Type': file.contentType, 'Content-Length': String(file.data.length) });
    res.end(file.data);
  }
}
