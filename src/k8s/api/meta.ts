// ObjectMeta checks every kind shares: a name (validated by the kind's own rule) and, for namespaced kinds, a
// namespace that is a DNS-1123 label. No generateName on the API (controllers generate names themselves), no
// label or annotation syntax checks.
//
// mirrors k8s.io/apimachinery/pkg/api/validation/objectmeta.go (ValidateObjectMetaAccessor).

import type { ObjectMeta } from '../objects.ts';
import { type FieldError, invalidValue, required } from './field-errors.ts';
import { dns1123LabelErrors } from './names.ts';

/** `metadata.name` and `metadata.namespace` errors, in the API server's order. */
export function validateObjectMeta(
  metadata: Pick<ObjectMeta, 'name' | 'namespace'>,
  namespaced: boolean,
  nameErrors: (name: string) => string[],
): FieldError[] {
  const errors: FieldError[] = [];
  if (metadata.name === '') {
    errors.push(required('metadata.name', 'name or generateName is required'));
  } else {
    for (const message of nameErrors(metadata.name))
      errors.push(invalidValue('metadata.name', metadata.name, message));
  }
  if (namespaced) {
    if (metadata.namespace === '') errors.push(required('metadata.namespace'));
    else {
      for (const message of dns1123LabelErrors(metadata.namespace)) {
        errors.push(invalidValue('metadata.namespace', metadata.namespace, message));
      }
    }
  } else if (metadata.namespace !== '') {
    errors.push({ field: 'metadata.namespace', body: 'Forbidden: not allowed on this type' });
  }
  return errors;
}
