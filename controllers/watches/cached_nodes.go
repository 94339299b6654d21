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
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"podnetwork.io/operator/internal/slimnode"
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
// fields of each: from the manager's cache, the informer store's own
// objects (read them, never change them); from any other reader (a test's
// fake client), each node listed and slimmed. The store and not a List:
// a List through the cache copies each object into the list even without
// a deep copy, 50 MB per call at 65,000 nodes (docs/performance.md), where
// the store gives pointers.
func CachedNodes(ctx context.Context, r client.Reader) ([]*slimnode.Node, error) {
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
		nodes := make([]*slimnode.Node, len(list.Items))
		for i := range list.Items {
			nodes[i] = slimnode.From(&list.Items[i])
		}
		return nodes, nil
	}
	objs := indexer.List()
	nodes := make([]*slimnode.Node, 0, len(objs))
	for _, obj := range objs {
		n, ok := obj.(*slimnode.Node)
		if !ok {
			return nil, fmt.Errorf("the node cache holds a %T", obj)
		}
		nodes = append(nodes, n)
	}
	return nodes, nil
}

// GetNode reads node name from r: from the manager's cache, the cache's own
// object (read it, never change it); from a reader the cache does not back
// (the API server, a test's fake client), the node read and slimmed. A node
// r does not hold is a NotFound error.
func GetNode(ctx context.Context, r client.Reader, name string) (*slimnode.Node, error) {
	if c, ok := r.(cache.Cache); ok {
		indexer, err := NodeIndexer(ctx, c)
		if err != nil {
			return nil, err
		}
		if indexer != nil {
			n, err := CachedNode(indexer, name)
			if err == nil && n == nil {
				err = apierrors.NewNotFound(corev1.Resource("nodes"), name)
			}
			return n, err
		}
	}
	n := &corev1.Node{}
	if err := r.Get(ctx, client.ObjectKey{Name: name}, n); err != nil {
		return nil, err
	}
	return slimnode.From(n), nil
}

// CachedNode returns node name from the node informer's store indexer (the
// cache's own object: read it, never change it), or nil when the store does
// not hold it.
func CachedNode(indexer toolscache.Indexer, name string) (*slimnode.Node, error) {
	obj, ok, err := indexer.GetByKey(name)
	if err != nil || !ok {
		return nil, err
	}
	n, ok := obj.(*slimnode.Node)
	if !ok {
		return nil, fmt.Errorf("the node cache holds a %T", obj)
	}
	return n, nil
}
