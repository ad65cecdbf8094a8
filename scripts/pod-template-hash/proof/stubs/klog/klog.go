// Package klog stands in for k8s.io/klog/v2, which intstr.go imports to report an int32 overflow.
package klog

import (
	"fmt"
	"os"
)

func Errorf(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, format, args...)
}
