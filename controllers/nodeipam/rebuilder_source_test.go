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
	"net/netip"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	podnetworkv1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/allocator"
	nodeipamcore "podnetwork.io/operator/internal/nodeipam"
	"podnetwork.io/operator/internal/slimnode"
)

// fakeNodeStore is a node informer's store whose resourceVersion moves on
// through rvs, one step per read (the last one stays).
type fakeNodeStore struct {
	mu    sync.Mutex
	rvs   []string
	nodes []any
}

func (s *fakeNodeStore) List() []any { return s.nodes }

func (s *fakeNodeStore) LastStoreSyncResourceVersion() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	rv := s.rvs[0]
	if len(s.rvs) > 1 {
		s.rvs = s.rvs[1:]
	}
	return rv
}

// leaderReader answers the leader-start read with rv and counts the LISTs
// of full nodes, which pagedNodes serves.
type leaderReader struct {
	*pagedNodes
	rv        string
	nodeLists int
}

func (r *leaderReader) List(ctx context.Context, obj client.ObjectList, opts ...client.ListOption) error {
	if l, ok := obj.(*metav1.PartialObjectMetadataList); ok {
		l.ResourceVersion = r.rv
		return nil
	}
	r.nodeLists++
	return r.pagedNodes.List(ctx, obj, opts...)
}

// TestRebuildNodeSource: the rebuild reads the nodes from the cache only
// once its store reached the leader-start resourceVersion, and lists them
// from the API server when it does not within maxWait.
func TestRebuildNodeSource(t *testing.T) {
	cluster := netip.MustParsePrefix("10.0.0.0/16")
	r, err := allocator.NewRange(cluster, 24)
	if err != nil {
		t.Fatal(err)
	}
	pn := activeRangeNetwork(cluster)
	// The cache holds 3 nodes with podCIDRs, the API server 5: which one
	// the rebuild read shows in the count.
	const cachedNodes, listedNodes = 3, 5
	cached := make([]any, cachedNodes)
	for i := range cached {
		name := fmt.Sprintf("cached-%d", i)
		cached[i] = slimnode.From(&corev1.Node{ // as the cache holds it
			ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name)},
			Spec:       corev1.NodeSpec{PodCIDR: r.Block(100 + i).String(), PodCIDRs: []string{r.Block(100 + i).String()}},
		})
	}
	tests := []struct {
		name      string
		cacheRVs  []string
		leaderRV  string
		maxWait   time.Duration
		want      nodeipamcore.NodeSource
		wantNodes int
	}{
		{name: "fresh cache", cacheRVs: []string{"200"}, leaderRV: "200", maxWait: time.Minute,
			want: nodeipamcore.NodeSourceCache, wantNodes: cachedNodes},
		{name: "the rebuild waits for a cache older than the leader-start read", cacheRVs: []string{"150", "180", "199", "201"}, leaderRV: "200",
			maxWait: time.Minute, want: nodeipamcore.NodeSourceCache, wantNodes: cachedNodes},
		{name: "a cache that stays older: LIST", cacheRVs: []string{"150"}, leaderRV: "200", maxWait: 3 * cachePollInterval,
			want: nodeipamcore.NodeSourceList, wantNodes: listedNodes},
		{name: "versions that do not compare: LIST", cacheRVs: []string{""}, leaderRV: "200", maxWait: time.Minute,
			want: nodeipamcore.NodeSourceList, wantNodes: listedNodes},
		{name: "off: LIST", cacheRVs: []string{"200"}, leaderRV: "200", maxWait: 0,
			want: nodeipamcore.NodeSourceList, wantNodes: listedNodes},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reader := &leaderReader{pagedNodes: newPagedNodes(listedNodes, r), rv: tt.leaderRV}
			rb := &rebuilder{reader: reader, maxWait: tt.maxWait, nodes: &fakeNodeStore{rvs: tt.cacheRVs, nodes: cached}}
			b, err := nodeipamcore.NewRebuild(pn)
			if err != nil {
				t.Fatal(err)
			}
			got, err := rb.addNodes(context.Background(), b)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("nodes from %s, want %s", got, tt.want)
			}
			if wantLists := map[bool]int{true: 1, false: 0}[tt.want == nodeipamcore.NodeSourceList]; reader.nodeLists != wantLists {
				t.Errorf("%d LISTs of nodes, want %d", reader.nodeLists, wantLists)
			}
			sum := nodeipamcore.NewState(clock.RealClock{}, nil, podnetworkv1alpha1.IPv4).Open(b)
			if sum.NodesWithPodCIDRs != tt.wantNodes {
				t.Errorf("%d nodes with podCIDRs, want %d", sum.NodesWithPodCIDRs, tt.wantNodes)
			}
		})
	}
}
