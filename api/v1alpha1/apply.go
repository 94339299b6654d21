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

package v1alpha1

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// ConsumerStatusApply returns the body of a server-side apply that sets the
// whole status of PodNetworkConsumer name, for example with controller-runtime:
//
//	u, err := v1alpha1.ConsumerStatusApply("my-plugin", &status)
//	err = c.Status().Apply(ctx, client.ApplyConfigurationFromUnstructured(u),
//		client.FieldOwner("my-plugin"), client.ForceOwnership)
//
// Apply it under the consumer's own field manager: the fields it leaves out
// are given up, so an entry of a purged range disappears by not being sent.
func ConsumerStatusApply(name string, status *PodNetworkConsumerStatus) (*unstructured.Unstructured, error) {
	return statusApply("PodNetworkConsumer", name, status)
}

// PodNetworkStatusApply returns the body of a server-side apply that sets the
// given fields of the status of PodNetwork name. The operator's writers (the
// lifecycle and NodeIPAM) each apply their own fields with it.
func PodNetworkStatusApply(name string, status *PodNetworkStatus) (*unstructured.Unstructured, error) {
	return statusApply("PodNetwork", name, status)
}

func statusApply(kind, name string, status any) (*unstructured.Unstructured, error) {
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(status)
	if err != nil {
		return nil, fmt.Errorf("converting %s status: %w", kind, err)
	}
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(GroupVersion.String())
	u.SetKind(kind)
	u.SetName(name)
	u.Object["status"] = content
	return u, nil
}
