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

package lazylog

import (
	"bytes"
	"errors"
	"testing"

	"github.com/go-logr/logr"
	gozap "go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"k8s.io/klog/v2"
	crzap "sigs.k8s.io/controller-runtime/pkg/log/zap"
)

// newZap is the operator's logger (controller-runtime's zap through zapr,
// production encoder) writing to buf, with V(1) enabled, the caller
// recorded and no timestamps, so two loggers' output can be compared.
func newZap(buf *bytes.Buffer) logr.Logger {
	return crzap.New(crzap.WriteTo(buf), crzap.Level(zapcore.Level(-1)),
		crzap.RawZapOpts(gozap.AddCaller()),
		func(o *crzap.Options) {
			o.EncoderConfigOptions = append(o.EncoderConfigOptions, func(c *zapcore.EncoderConfig) { c.TimeKey = "" })
		})
}

// helper logs through WithCallDepth, as a logging helper does: the caller
// recorded is helper's.
func helper(l logr.Logger) {
	l.WithCallDepth(1).Info("from a helper")
}

func TestWrapWritesWhatTheEagerLoggerWrites(t *testing.T) {
	tests := []struct {
		name string
		log  func(l logr.Logger)
	}{
		{"message only", func(l logr.Logger) { l.Info("plain", "k", 1) }},
		{"values before the message's own", func(l logr.Logger) {
			l.WithValues("controller", "node-ipam", "Node", klog.KRef("", "n1")).Info("assigned podCIDRs", "podCIDRs", []string{"10.0.0.0/24"})
		}},
		{"nested values and names", func(l logr.Logger) {
			l.WithName("a").WithValues("x", 1).WithName("b").WithValues("y", "two").Info("nested")
		}},
		{"enabled and disabled levels", func(l logr.Logger) {
			v := l.WithValues("x", 1)
			v.V(1).Info("debug")
			v.V(2).Info("too verbose, not written")
		}},
		{"error", func(l logr.Logger) { l.WithValues("x", 1).Error(errors.New("boom"), "failed", "y", 2) }},
		{"siblings keep their own values", func(l logr.Logger) {
			parent := l.WithValues("p", 0)
			a, b := parent.WithValues("a", 1), parent.WithValues("b", 2)
			a.Info("first")
			b.Info("second")
			parent.Info("parent")
		}},
		{"call depth", func(l logr.Logger) { helper(l.WithValues("x", 1)) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var eager, lazy bytes.Buffer
			// One call site for both, so stack traces match too.
			for _, l := range []logr.Logger{newZap(&eager), Wrap(newZap(&lazy))} {
				tt.log(l)
			}
			if eager.Len() == 0 {
				t.Fatal("the eager logger wrote nothing")
			}
			if eager.String() != lazy.String() {
				t.Errorf("lazy output differs:\n eager: %s\n lazy:  %s", eager.String(), lazy.String())
			}
		})
	}
}

func TestWrapDiscardAndTwice(t *testing.T) {
	if Wrap(logr.Discard()).GetSink() != nil {
		t.Error("Wrap(Discard()) has a sink")
	}
	var buf bytes.Buffer
	once := Wrap(newZap(&buf))
	if Wrap(once).GetSink() != once.GetSink() {
		t.Error("wrapping twice added a second lazy sink")
	}
}
