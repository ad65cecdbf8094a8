// Package runtime stands in for k8s.io/apimachinery/pkg/runtime: core/v1's types.go refers to it
// only through metav1.List (runtime.RawExtension), which no pod template reaches.
package runtime

type RawExtension struct {
	Raw []byte `json:"-" protobuf:"bytes,1,opt,name=raw"`
}
