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

package nodeipam

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
)

// podCIDRWriter sends a node's podCIDRs patch (podCIDRsPatch) to the API
// server and reports only its outcome, an API error as the API server
// answered it.
type podCIDRWriter interface {
	patchPodCIDRs(ctx context.Context, node string, patch []byte) error
}

// restPodCIDRWriter patches nodes through a core/v1 REST client and never
// decodes the node the API server answers with: NodeIPAM needs only the
// outcome, and decoding that node into a corev1.Node, as a
// controller-runtime client does, was 8% of the operator's CPU in a
// 5,000-node burst, plus the garbage it left (docs/performance.md).
type restPodCIDRWriter struct {
	client rest.Interface
}

// newRESTPodCIDRWriter makes the writer from the manager's config and HTTP
// client, so its requests share the manager's connections; like each type's
// client in a controller-runtime client, it has its own client-side rate
// limiter of --kube-api-qps and --kube-api-burst.
func newRESTPodCIDRWriter(mgr ctrl.Manager) (podCIDRWriter, error) {
	c, err := apiutil.RESTClientForGVK(corev1.SchemeGroupVersion.WithKind("Node"), false, false,
		mgr.GetConfig(), serializer.NewCodecFactory(mgr.GetScheme()), mgr.GetHTTPClient())
	if err != nil {
		return nil, fmt.Errorf("creating the REST client NodeIPAM writes podCIDRs with: %w", err)
	}
	return restPodCIDRWriter{client: c}, nil
}

func (w restPodCIDRWriter) patchPodCIDRs(ctx context.Context, node string, patch []byte) error {
	return w.client.Patch(types.MergePatchType).Resource("nodes").Name(node).
		Param("fieldManager", FieldManager).Body(patch).Do(ctx).Error()
}
