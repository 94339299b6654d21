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
	"crypto/rand"
	"errors"
	"fmt"
	"sync"

	"go4.org/netipx"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	nodeipamcore "podnetwork.io/operator/internal/nodeipam"
)

const (
	// RecordName is the ConfigMap holding the issued-block record
	// (internal/nodeipam/record.go), in Options.RecordNamespace. It is its
	// own object, not a field of the PodNetwork every plugin watches.
	RecordName = "podnetwork-nodeipam-issued"

	// ClaimAnnotation on the record names the leader that wrote it last
	// since its rebuild: a random token each rebuild draws.
	ClaimAnnotation = "podnetwork.io/node-ipam-claim"
)

// The record's Role is namespaced, so it is in the chart
// (templates/rbac/node-ipam-record.yaml), not a marker here: markers make
// the cluster-wide role, and the operator needs no ConfigMap elsewhere.

// recordStore reads and writes the record. Every write is conditional on
// the resourceVersion this leader last read or wrote, which fences a former
// leader: once a new leader claimed the record at its rebuild, a write of
// the old one fails with a conflict, it finds another claim on the record,
// and stops allocating. One write at a time.
type recordStore struct {
	client client.Client // writes
	reader client.Reader // API server reads, never the cache
	key    types.NamespacedName
	state  *nodeipamcore.State

	mu    sync.Mutex
	rv    string // resourceVersion last read or written
	claim string
}

// read returns the record from the API server; nil when there is none.
func (s *recordStore) read(ctx context.Context) (*corev1.ConfigMap, error) {
	cm := &corev1.ConfigMap{}
	if err := s.reader.Get(ctx, s.key, cm); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("reading the issued-block record %s: %w", s.key, err)
	}
	return cm, nil
}

// claimRecord stores content under a new claim of this leader, replacing
// the record read at the rebuild (nil: none), conditional on its
// resourceVersion. Any change of the record since fails the rebuild, which
// starts over.
func (s *recordStore) claimRecord(ctx context.Context, read *corev1.ConfigMap, content *netipx.IPSet) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.claim = rand.Text()
	if read == nil {
		s.rv = ""
	} else {
		s.rv = read.ResourceVersion
	}
	if err := s.writeLocked(ctx, content); err != nil {
		return fmt.Errorf("claiming the issued-block record %s: %w", s.key, err)
	}
	return nil
}

// sync writes the record State wants, if it differs from what the API
// holds.
func (s *recordStore) sync(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for attempt := 0; ; attempt++ {
		content, ok := s.state.BeginRecordWrite()
		if !ok {
			return nil
		}
		err := s.writeLocked(ctx, content)
		switch {
		case err == nil:
			s.state.EndRecordWrite(content, nodeipamcore.RecordStored)
			return nil
		case apierrors.IsNotFound(err) && attempt == 0:
			// Deleted: create it again. A leader that claimed it meanwhile
			// makes the create fail, and this one stops.
			s.state.EndRecordWrite(content, nodeipamcore.RecordNotStored)
			s.rv = ""
		case apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err):
			s.state.EndRecordWrite(content, nodeipamcore.RecordNotStored)
			if rerr := s.rereadLocked(ctx); rerr != nil || attempt > 0 {
				return errors.Join(fmt.Errorf("writing the issued-block record %s: %w", s.key, err), rerr)
			}
		case certainlyNotStored(err):
			s.state.EndRecordWrite(content, nodeipamcore.RecordNotStored)
			return fmt.Errorf("writing the issued-block record %s: %w", s.key, err)
		default:
			s.state.EndRecordWrite(content, nodeipamcore.RecordUnknown)
			return fmt.Errorf("writing the issued-block record %s, outcome unknown: %w", s.key, err)
		}
	}
}

// rereadLocked follows a conflict: the record changed since this leader
// last wrote it. If it still carries this leader's claim, the change was a
// write of its own whose answer was lost: take the record as it is and try
// again. Otherwise another leader claimed it: stop allocating.
func (s *recordStore) rereadLocked(ctx context.Context) error {
	cm, err := s.read(ctx)
	if err != nil {
		return err
	}
	if cm == nil || cm.Annotations[ClaimAnnotation] != s.claim {
		s.state.Fence()
		return nodeipamcore.ErrFenced
	}
	set, err := nodeipamcore.DecodeRecord(cm.Data)
	if err != nil {
		return fmt.Errorf("the issued-block record %s changed under this leader's claim: %w", s.key, err)
	}
	s.rv = cm.ResourceVersion
	s.state.RecordReread(set)
	return nil
}

// writeLocked creates the record (no resourceVersion known) or updates it
// conditionally, with this leader's claim.
func (s *recordStore) writeLocked(ctx context.Context, content *netipx.IPSet) error {
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{
			Namespace:       s.key.Namespace,
			Name:            s.key.Name,
			ResourceVersion: s.rv,
			Labels:          map[string]string{"app.kubernetes.io/managed-by": "podnetwork-operator"},
			Annotations:     map[string]string{ClaimAnnotation: s.claim},
		},
		Data: nodeipamcore.EncodeRecord(content),
	}
	var err error
	if s.rv == "" {
		err = s.client.Create(ctx, cm, client.FieldOwner(FieldManager))
	} else {
		err = s.client.Update(ctx, cm, client.FieldOwner(FieldManager))
	}
	if err != nil {
		return err
	}
	s.rv = cm.ResourceVersion
	return nil
}
