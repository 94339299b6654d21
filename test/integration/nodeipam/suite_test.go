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

// Package nodeipam_test runs the operator's NodeIPAM, with the real lifecycle
// controller, in-process against a real kube-apiserver and etcd built from
// their Go modules (test/framework), and checks every scenario with the
// invariant checker of test/framework/invariants.
package nodeipam_test

import (
	"testing"
	"time"

	"podnetwork.io/operator/test/framework"
)

// The specs create hundreds of nodes at once; the framework's client limits
// keep the test client from being the bottleneck.
var (
	suite     = framework.NewSuite("NodeIPAM Suite", framework.ControlPlaneOptions{})
	suiteCtx  = suite.Ctx
	k8sClient = suite.API
)

func TestNodeIPAM(t *testing.T) { suite.Run(t, 60*time.Second, 100*time.Millisecond) }
