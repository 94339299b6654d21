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
	"net/http"

	ctrl "sigs.k8s.io/controller-runtime"

	"podnetwork.io/operator/controllers/nodeipam/nodepatch"
)

// podCIDRWriter sends a node's podCIDRs patch (podCIDRsPatch) to the API
// server and reports only its outcome, an API error as the API server
// answered it.
type podCIDRWriter interface {
	patchPodCIDRs(ctx context.Context, node string, patch []byte) error
}

// restPodCIDRWriter patches nodes through nodepatch, which never decodes the
// node the API server answers with: NodeIPAM needs only the outcome, and
// decoding that node into a corev1.Node, as a controller-runtime client
// does, was 8% of the operator's CPU in a 5,000-node burst, plus the
// garbage it left (docs/performance.md); client-go's request machinery
// around the round trip was about as much again.
type restPodCIDRWriter struct {
	writer *nodepatch.Writer
}

// newRESTPodCIDRWriter makes the writer from the manager's config and HTTP
// client, so its requests share the manager's connections, fenced by fence
// when it is set (the lease's write fence; every write of a leader goes
// through it). Like each type's client in a controller-runtime client, it
// has its own client-side rate limiter of --kube-api-qps and
// --kube-api-burst.
func newRESTPodCIDRWriter(mgr ctrl.Manager, fence func(*http.Client) *http.Client) (podCIDRWriter, error) {
	hc := mgr.GetHTTPClient()
	if fence != nil {
		hc = fence(hc)
	}
	w, err := nodepatch.New(mgr.GetConfig(), hc, mgr.GetScheme(), FieldManager)
	if err != nil {
		return nil, err
	}
	return restPodCIDRWriter{writer: w}, nil
}

func (w restPodCIDRWriter) patchPodCIDRs(ctx context.Context, node string, patch []byte) error {
	return w.writer.MergePatch(ctx, node, patch)
}
