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

// WriteProbe reads a watch of nodes opened at the cache's resourceVersion
// (From) to find which writes the cache must still apply to show every
// write up to the leader-start read (Leader). A watch delivers the writes
// after From in resourceVersion order, then bookmarks; once it delivered a
// bookmark or a write at or past Leader, it has shown every node write in
// (From, Leader], and the cache is fresh enough when it reached the last of
// them. Without a single write there, the cache at From already is: a
// cluster whose nodes do not change need not wait for the informer's next
// bookmark (about a minute).
type WriteProbe struct {
	From, Leader string
	last         string
	confirmed    bool
}

// Observe takes the next watch event's resourceVersion (bookmark: a
// bookmark, else a node write). It returns true once the probe is
// confirmed; an error when a version does not compare.
func (p *WriteProbe) Observe(rv string, bookmark bool) (bool, error) {
	cmp, err := resourceversion.CompareResourceVersion(rv, p.Leader)
	if err != nil {
		return false, err
	}
	switch {
	case cmp > 0:
		p.confirmed = true
	case bookmark:
		p.confirmed = cmp == 0
	default:
		p.last = rv
		p.confirmed = cmp == 0
	}
	return p.confirmed, nil
}

// Target is the resourceVersion the cache must reach: the last node write
// up to Leader (From when there was none) once the probe is confirmed,
// else Leader itself.
func (p *WriteProbe) Target() string {
	switch {
	case !p.confirmed:
		return p.Leader
	case p.last != "":
		return p.last
	default:
		return p.From
	}
}
