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
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/util/resourceversion"
)

// NodeSource is where the rebuild reads the nodes from.
type NodeSource int

const (
	// NodeSourceWait: the cache is older than the leader-start read; look
	// again.
	NodeSourceWait NodeSource = iota
	// NodeSourceCache: the informer's cache has applied every write up to
	// the leader-start read; rebuild from it.
	NodeSourceCache
	// NodeSourceList: rebuild from a paginated LIST of the API server.
	NodeSourceList
)

func (s NodeSource) String() string {
	switch s {
	case NodeSourceWait:
		return "wait"
	case NodeSourceCache:
		return "cache"
	case NodeSourceList:
		return "list"
	default:
		return fmt.Sprintf("NodeSource(%d)", int(s))
	}
}

// ChooseNodeSource decides whether the rebuild may read the nodes from the
// informer's cache instead of listing them all again from the API server.
//
// leaderRV is the resourceVersion of a quorum read of nodes made after this
// replica became the leader: every write the previous leader made to a node
// has a smaller one. cacheRV is the resourceVersion the cache's store has
// applied (objects and bookmarks). Once cacheRV ≥ leaderRV the cache shows
// every such write, as a LIST made at leaderRV would. Until then the cache
// may lack the previous leader's last podCIDRs, so the rebuild waits, for at
// most maxWait after it read leaderRV (waited); after that, or when the two
// cannot be compared (a version that is not a resourceVersion of etcd, an
// informer that does not report one), it lists. maxWait ≤ 0 always lists.
// The reason says why the cache was not used.
func ChooseNodeSource(cacheRV, leaderRV string, waited, maxWait time.Duration) (NodeSource, string) {
	if maxWait <= 0 {
		return NodeSourceList, "rebuilding from the cache is off"
	}
	cmp, err := resourceversion.CompareResourceVersion(cacheRV, leaderRV)
	switch {
	case err != nil:
		return NodeSourceList, fmt.Sprintf("cannot compare the cache's resourceVersion %q with the leader-start one %q: %v", cacheRV, leaderRV, err)
	case cmp >= 0:
		return NodeSourceCache, ""
	case waited < maxWait:
		return NodeSourceWait, ""
	default:
		return NodeSourceList, fmt.Sprintf("the cache stayed at resourceVersion %s, older than the leader-start %s, for %s", cacheRV, leaderRV, maxWait)
	}
}
