// Package direct stands in for k8s.io/apimachinery/pkg/runtime/serializer/cbor/direct when the proof
// program compiles apimachinery's real resource and intstr sources: they import it only for their
// CBOR methods, which the proof never calls.
package direct

import "errors"

var errNoCBOR = errors.New("cbor is not available in the pod-template-hash proof")

func Marshal(src interface{}) ([]byte, error) { return nil, errNoCBOR }

func Unmarshal(src []byte, dst interface{}) error { return errNoCBOR }

func Diagnose(src []byte) (string, error) { return "", errNoCBOR }
