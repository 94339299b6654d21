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

// Package autoscale_test runs the operator, NodeIPAM and the autoscaler
// included, in-process against a real kube-apiserver and etcd, with
// reference consumers acknowledging after a delay, and checks what
// docs/autoscaling.md promises: growth by expansion before nodes run out,
// exhaustion and rejection reported without loops, shrink of an empty
// autoscaled range, no admin apply (client-side, server-side, replace)
// touching the autoscaler's ranges, and no duplicate range across a
// restart.
package autoscale_test

import (
	"testing"
	"time"

	"podnetwork.io/operator/test/framework"
)

var (
	suite     = framework.NewSuite("Autoscale Suite", framework.ControlPlaneOptions{})
	suiteCtx  = suite.Ctx
	k8sClient = suite.API
)

func TestAutoscale(t *testing.T) { suite.Run(t, 90*time.Second, 100*time.Millisecond) }
