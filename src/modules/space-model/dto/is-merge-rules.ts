import { registerDecorator, ValidationArguments } from 'class-validator';
import { mergeRulesProblem } from '../merge-rules';

/**
 * A public merge-rules configuration: `MergeRulesSpaceConfiguration` (`inherit: true`, a space) or
 * `MergeRulesStandaloneConfiguration` (an organization). The union is checked by hand
 * (`mergeRulesProblem`), so the message names the exact field (`mergeRules.rules[1].users: …`).
 */
export function IsMergeRules(options: { inherit: boolean }): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isMergeRules',
      target: target.constructor,
      propertyName: propertyName as string,
      options: {
        // The pipe prefixes the property (`mergeRules: …`): the problem says where inside it.
        message: (args: ValidationArguments) => {
          const problem = mergeRulesProblem(args.value, { inherit: options.inherit, path: args.property }) ?? `${args.property}: is invalid`;
          return problem.startsWith(`${args.property}: `) ? problem.slice(args.property.length + 2) : problem.slice(args.property.length + 1);
        },
      },
      validator: { validate: (value: unknown) => mergeRulesProblem(value, { inherit: options.inherit, path: propertyName as string }) === null },
    });
}
