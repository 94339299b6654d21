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
	"slices"

	"github.com/go-logr/logr"
)

// Wrap returns log with its WithValues deferred: the values are handed to
// log's sink, ahead of a message's own, only when a message is written.
// Names, levels and the caller a message is attributed to stay as they were.
func Wrap(log logr.Logger) logr.Logger {
	sink := log.GetSink()
	if sink == nil {
		return log // the discard logger
	}
	if _, ok := sink.(*lazySink); ok {
		return log
	}
	// The lazy sink is one more frame between the caller and the sink.
	if cd, ok := sink.(logr.CallDepthLogSink); ok {
		sink = cd.WithCallDepth(1)
	}
	return logr.New(&lazySink{sink: sink})
}

// lazySink keeps the values of WithValues and prepends them to the values
// of each message it passes on.
type lazySink struct {
	sink   logr.LogSink
	values []any
}

var (
	_ logr.LogSink          = (*lazySink)(nil)
	_ logr.CallDepthLogSink = (*lazySink)(nil)
)

// Init does not pass the runtime information on: the wrapped sink was
// initialised with its own logger, and Wrap added the lazy sink's frame.
func (s *lazySink) Init(logr.RuntimeInfo) {}

func (s *lazySink) Enabled(level int) bool { return s.sink.Enabled(level) }

func (s *lazySink) Info(level int, msg string, keysAndValues ...any) {
	s.sink.Info(level, msg, s.with(keysAndValues)...)
}

func (s *lazySink) Error(err error, msg string, keysAndValues ...any) {
	s.sink.Error(err, msg, s.with(keysAndValues)...)
}

// with is the kept values followed by a message's own.
func (s *lazySink) with(keysAndValues []any) []any {
	if len(s.values) == 0 {
		return keysAndValues
	}
	return slices.Concat(s.values, keysAndValues)
}

func (s *lazySink) WithValues(keysAndValues ...any) logr.LogSink {
	// A fresh slice: loggers derived from one parent must not share a tail.
	return &lazySink{sink: s.sink, values: slices.Concat(s.values, keysAndValues)}
}

func (s *lazySink) WithName(name string) logr.LogSink {
	return &lazySink{sink: s.sink.WithName(name), values: s.values}
}

func (s *lazySink) WithCallDepth(depth int) logr.LogSink {
	cd, ok := s.sink.(logr.CallDepthLogSink)
	if !ok {
		return s
	}
	return &lazySink{sink: cd.WithCallDepth(depth), values: s.values}
}
