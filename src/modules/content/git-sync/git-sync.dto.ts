import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsObject, IsString, Length, MaxLength } from 'class-validator';
import { Optional } from '../../../common/validation/presence';

/** The public `ImportGitRepository` body; this server reads repositories under its GIT_SYNC_ROOT only. */
export class ImportGitRepositoryDto {
  @ApiProperty({ maxLength: 4096, description: 'The repository: a file:/// URL or an absolute path under the server’s GIT_SYNC_ROOT' })
  @IsString()
  @Length(1, 4096)
  url: string;

  @ApiProperty({ maxLength: 250, description: 'Git ref to import, such as "refs/heads/main"' })
  @IsString()
  @Length(1, 250)
  ref: string;

  @ApiPropertyOptional({ deprecated: true })
  @Optional()
  @IsString()
  @MaxLength(1000)
  repoCacheID?: string;

  @ApiPropertyOptional({ description: 'Accepted; not used (links of this server point at its own files)' })
  @Optional()
  @IsString()
  @MaxLength(4096)
  repoTreeURL?: string;

  @ApiPropertyOptional({ description: 'Accepted; not used' })
  @Optional()
  @IsString()
  @MaxLength(4096)
  repoCommitURL?: string;

  @ApiPropertyOptional({ description: 'Accepted; not used (the repository’s .gitbook.yaml `root` is read)' })
  @Optional()
  @IsString()
  @MaxLength(4096)
  repoProjectDirectory?: string;

  @ApiPropertyOptional({ format: 'date-time' })
  @Optional()
  @IsString()
  @MaxLength(64)
  timestamp?: string;

  @ApiPropertyOptional()
  @Optional()
  @IsBoolean()
  force?: boolean;

  @ApiPropertyOptional({ description: 'Accepted; the import always replaces the space’s content' })
  @Optional()
  @IsBoolean()
  standalone?: boolean;

  @ApiPropertyOptional({ deprecated: true, type: 'object', additionalProperties: true })
  @Optional()
  @IsObject()
  gitInfo?: Record<string, unknown>;
}

/** The public `ExportToGitRepository` body. */
export class ExportToGitRepositoryDto extends ImportGitRepositoryDto {
  @ApiProperty({ maxLength: 10000, description: 'Message of the commit the export writes' })
  @IsString()
  @Length(1, 10000)
  commitMessage: string;
}
