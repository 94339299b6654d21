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

// Package drain_test runs the operator (lifecycle, NodeIPAM, drain assist)
// in-process against a real kube-apiserver and etcd and checks what
// docs/operations.md promises of drain assist: the holders of a Draining
// range are cordoned, drained through the Eviction API and handed over at
// most maxUnavailable at a time, a PodDisruptionBudget holds a node back
// and is named, DaemonSet pods stay, a do-not-disrupt node is skipped, and
// the range is released once its nodes are replaced.
//
// Nothing runs pods here: pods are created bound to their node
// (spec.nodeName) with a termination grace period of 0, so an eviction
// deletes them at once, and the test sets PodDisruptionBudget status
// itself, as the disruption controller would. Karpenter's and Cluster
// API's part is played by the test: a deleted Node is gone at once, and a
// Node with the condition PodCIDRReplacementNeeded is deleted shortly
// after it appears.
package drain_test

import (
	"testing"
	"time"

	"podnetwork.io/operator/test/framework"
)

var (
	suite     = framework.NewSuite("Drain Assist Suite", framework.ControlPlaneOptions{})
	suiteCtx  = suite.Ctx
	k8sClient = suite.API
)

func TestDrainAssist(t *testing.T) { suite.Run(t, 60*time.Second, 100*time.Millisecond) }
