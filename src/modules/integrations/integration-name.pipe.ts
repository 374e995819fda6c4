import { Injectable, PipeTransform } from '@nestjs/common';
import { integrationError } from './integration.errors';

/** `integrationName` path parameters: pattern `^[a-zA-Z0-9-_.]+$`, at most 100 characters (else 400). */
@Injectable()
export class IntegrationNamePipe implements PipeTransform<string, string> {
  transform(value: string): string {
    if (!/^[\w.-]{1,100}$/.test(value)) {
      throw integrationError('integration.invalid_manifest', 'integrationName: must match ^[a-zA-Z0-9-_.]+$ (at most 100 characters)');
    }
    return value;
  }
}
