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

package watches

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// NodeIndexer returns the store of the cache's node informer, or nil when
// the informer does not expose it. Its objects are the cache's own, as
// TransformNode left them: read them, never change them.
func NodeIndexer(ctx context.Context, c cache.Cache) (toolscache.Indexer, error) {
	informer, err := c.GetInformer(ctx, &corev1.Node{})
	if err != nil {
		return nil, fmt.Errorf("getting the node informer: %w", err)
	}
	if i, ok := informer.(interface{ GetIndexer() toolscache.Indexer }); ok {
		return i.GetIndexer(), nil
	}
	return nil, nil
}

// CachedNodes returns every node r holds, for readers that take a few
// fields of each: from a cache, the cache's own objects (read them, never
// change them). A List through the cache copies each Node struct into the
// NodeList even without a deep copy, 50 MB per call at 65,000 nodes
// (docs/performance.md); the informer's store gives pointers only. Other
// readers (a cache without that store, a test's fake client) are listed.
func CachedNodes(ctx context.Context, r client.Reader) ([]*corev1.Node, error) {
	var indexer toolscache.Indexer
	if c, ok := r.(cache.Cache); ok {
		var err error
		if indexer, err = NodeIndexer(ctx, c); err != nil {
			return nil, err
		}
	}
	if indexer == nil {
		var list corev1.NodeList
		if err := r.List(ctx, &list, client.UnsafeDisableDeepCopy); err != nil {
			return nil, fmt.Errorf("listing nodes: %w", err)
		}
		nodes := make([]*corev1.Node, len(list.Items))
		for i := range list.Items {
			nodes[i] = &list.Items[i]
		}
		return nodes, nil
	}
	objs := indexer.List()
	nodes := make([]*corev1.Node, 0, len(objs))
	for _, obj := range objs {
		n, ok := obj.(*corev1.Node)
		if !ok {
			return nil, fmt.Errorf("the node cache holds a %T", obj)
		}
		nodes = append(nodes, n)
	}
	return nodes, nil
}
