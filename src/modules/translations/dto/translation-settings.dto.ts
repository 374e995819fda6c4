import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsString, Length, Matches } from 'class-validator';
import { IsLanguageTag } from '../language-tags';
import { Optional } from '../../../common/validation/presence';

export const TRANSLATION_TITLE = { min: 1, max: 100 };
export const MAX_LANGUAGES = 100;

/**
 * Body of `POST /translations` and `PUT /translations/{id}`. `languages` may be left out: a new
 * settings object starts with none, and a PUT without it keeps the current ones (the API
 * description's PUT body names only the title, so clients following it must not lose their languages).
 */
export class TranslationSettingsDto {
  @ApiProperty({ minLength: TRANSLATION_TITLE.min, maxLength: TRANSLATION_TITLE.max })
  @IsString()
  @Length(TRANSLATION_TITLE.min, TRANSLATION_TITLE.max)
  @Matches(/\S/, { message: 'must not be blank' })
  title: string;

  @ApiPropertyOptional({
    type: [String],
    maxItems: MAX_LANGUAGES,
    example: ['en', 'fr', 'pt-BR'],
    description: 'BCP 47 language tags, stored in canonical form',
  })
  @Optional()
  @IsArray()
  @ArrayMaxSize(MAX_LANGUAGES)
  @IsLanguageTag({ each: true })
  languages?: string[];
}
