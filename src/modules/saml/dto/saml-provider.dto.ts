import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptions } from '@nestjs/swagger';
import { IsIn, IsString, IsUrl, Length, Matches, MaxLength } from 'class-validator';
import { MEMBER_ROLES, type MemberRoleOrGuest } from '../../../common/roles';
import { IsPemCertificate } from '../certificate';
import { Nullable, Optional } from '../../../common/validation/presence';

export const SAML_LIMITS = { label: 30, entityID: 1024, certificate: 10000, ssoURL: 2048 };

/**
 * The rules of each field, shared by create and update. `required: false` (PATCH) skips an absent
 * field but still refuses null for fields that cannot be null (class-validator's IsOptional would let it through).
 */
const field = (required: boolean, property: string, api: ApiPropertyOptions, ...rules: PropertyDecorator[]) =>
  applyDecorators(ApiProperty({ ...api, required } as ApiPropertyOptions), ...(required ? [] : [Optional()]), ...rules);

const Label = (required: boolean) =>
  field(
    required,
    'label',
    { minLength: 1, maxLength: SAML_LIMITS.label },
    IsString(),
    Length(1, SAML_LIMITS.label),
    Matches(/\S/, { message: 'must not be blank' }),
  );

const EntityId = (required: boolean) =>
  field(
    required,
    'entityID',
    { minLength: 1, maxLength: SAML_LIMITS.entityID, description: "The identity provider's entity ID" },
    IsString(),
    Length(1, SAML_LIMITS.entityID),
  );

const Certificate = (required: boolean) =>
  field(
    required,
    'certificate',
    { maxLength: SAML_LIMITS.certificate, description: "PEM of the identity provider's X.509 signing certificate" },
    IsString(),
    MaxLength(SAML_LIMITS.certificate),
    IsPemCertificate(),
  );

const SsoUrl = (required: boolean) =>
  field(
    required,
    'ssoURL',
    { format: 'uri', maxLength: SAML_LIMITS.ssoURL, description: "The identity provider's sign-in URL" },
    IsString(),
    MaxLength(SAML_LIMITS.ssoURL),
    IsUrl({ require_protocol: true, protocols: ['http', 'https'], require_tld: false }),
  );

// Nullable fields: null is a value (no default team; guests), so only null or absent skip the checks.
const DefaultTeam = () =>
  applyDecorators(
    ApiProperty({ type: String, nullable: true, required: false, description: 'Team that new members signing in join; null for none' }),
    Nullable(),
    IsString(),
    MaxLength(256),
  );

const DefaultRole = () =>
  applyDecorators(
    ApiProperty({ enum: MEMBER_ROLES, nullable: true, required: false, description: 'Role of new members signing in; null (the default) makes them guests' }),
    Nullable(),
    IsIn(MEMBER_ROLES),
  );

/**
 * `POST /saml`. Only `label` is required (section 4.15); without entity ID, certificate and sign-in URL
 * the provider is `pending` until PATCH gives them. None of them may be null.
 */
export class CreateSamlProviderDto {
  @Label(true)
  label: string;

  @EntityId(false)
  entityID?: string;

  @Certificate(false)
  certificate?: string;

  @SsoUrl(false)
  ssoURL?: string;

  @DefaultTeam()
  defaultTeam?: string | null;

  @DefaultRole()
  defaultRole?: MemberRoleOrGuest;
}

/** `PATCH /saml/{id}`: the same members, all optional. */
export class UpdateSamlProviderDto {
  @Label(false)
  label?: string;

  @EntityId(false)
  entityID?: string;

  @Certificate(false)
  certificate?: string;

  @SsoUrl(false)
  ssoURL?: string;

  @DefaultTeam()
  defaultTeam?: string | null;

  @DefaultRole()
  defaultRole?: MemberRoleOrGuest;
}
