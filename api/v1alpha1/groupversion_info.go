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

// Package v1alpha1 contains the v1alpha1 API of the podnetwork.io group.
//
// The group has two cluster-scoped kinds:
//
//   - PodNetwork, a singleton named "default", declares the pod CIDR ranges of
//     the cluster. The operator tracks every range through the phases
//     Pending, Active, Draining and Released and records them in its status.
//   - PodNetworkConsumer, one per component that must know the pod network
//     (the built-in NodeIPAM, kube-proxy and flannel adapters, third-party
//     plugins). Each consumer acknowledges, in its own status, the phase of
//     every range it has applied. The operator moves a range to its next phase
//     only once every required consumer has acknowledged the current one.
//
// protocol.go holds the helpers a consumer uses to take part in that
// handshake.
//
// +kubebuilder:object:generate=true
// +groupName=podnetwork.io
package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The scheme registration uses apimachinery only, not controller-runtime's
// scheme.Builder, so that this module (which plugins import) depends on
// nothing but k8s.io/apimachinery and k8s.io/api.

var (
	// GroupVersion is the group and version used to register these objects.
	GroupVersion = schema.GroupVersion{Group: "podnetwork.io", Version: "v1alpha1"}

	// schemeBuilder adds every type in objectTypes to a scheme.
	schemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)

	// AddToScheme adds the types in this group-version to the given scheme.
	AddToScheme = schemeBuilder.AddToScheme

	// objectTypes are the kinds of this group-version; each *_types.go file
	// appends its own in init.
	objectTypes []runtime.Object
)

func addKnownTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(GroupVersion, objectTypes...)
	metav1.AddToGroupVersion(scheme, GroupVersion)
	return nil
}
