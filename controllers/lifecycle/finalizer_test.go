/*
Copyright 2026 The podnetwork-operator Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package lifecycle

import (
	"fmt"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestTestOpFailed(t *testing.T) {
	// What kube-apiserver v1.37 answers when a JSON patch's test operation
	// fails (seen against the real server).
	testFailed := &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: 422, Reason: metav1.StatusReasonInvalid,
		Message: "the server rejected our request due to an error in our request",
		Details: &metav1.StatusDetails{},
	}}
	invalidObject := apierrors.NewInvalid(schema.GroupKind{Group: "podnetwork.io", Kind: "PodNetwork"}, "default",
		field.ErrorList{field.Invalid(field.NewPath("metadata", "finalizers").Index(0), "x", "bad finalizer")})
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"failed test operation", testFailed, true},
		{"failed test operation, wrapped", fmt.Errorf("patching: %w", testFailed), true},
		{"the object itself invalid", invalidObject, false},
		{"conflict", apierrors.NewConflict(schema.GroupResource{Resource: "podnetworks"}, "default", fmt.Errorf("changed")), false},
		{"not an API error", fmt.Errorf("connection reset"), false},
	} {
		if got := testOpFailed(tc.err); got != tc.want {
			t.Errorf("%s: testOpFailed = %v, want %v", tc.name, got, tc.want)
		}
	}
}
