// The loader's field errors are the validation module's (apimachinery's field.Error shape), so that
// a decoding error, a strict-decoding error and a validation error read alike.

export {
  type FieldError,
  fieldErrorText,
  formatPath,
  // The loader's own decoding messages quote a value as the input wrote it.
  formatWritten as formatValue,
  type Path,
  type PathElem,
  required,
  typeError,
  unknownField,
} from '../validation/field.js'
