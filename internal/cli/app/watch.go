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

package app

import (
	"context"
	"fmt"
	"os"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/cli"
)

// clearScreen moves a terminal's cursor home and clears it, so --watch
// redraws one screen.
const clearScreen = "\x1b[H\x1b[2J"

// watchStatus prints, then prints again whenever the PodNetwork or a consumer
// changes, and at least every refresh (for the ages), until ctx ends. A
// watch the API server closes is opened again. The human tables are
// redrawn on a terminal and separated by a line with the time otherwise;
// the machine output is a stream of whole documents (JSON objects one after
// the other, YAML documents separated by "---"). It returns what the last
// read could not read.
func (e *env) watchStatus(ctx context.Context, refresh time.Duration, human bool, show func(context.Context) ([]cli.Unreadable, error)) ([]cli.Unreadable, error) {
	events := make(chan struct{}, 1)
	for _, list := range []client.ObjectList{&v1alpha1.PodNetworkList{}, &v1alpha1.PodNetworkConsumerList{}} {
		go e.follow(ctx, list, events)
	}
	tty := isTerminal(e.p.stdout)
	ticker := time.NewTicker(refresh)
	defer ticker.Stop()
	var unreadable []cli.Unreadable
	for {
		switch {
		case human && tty:
			fmt.Fprint(e.p.stdout, clearScreen)
		case human:
			fmt.Fprintf(e.p.stdout, "--- %s\n", e.now().UTC().Format(time.RFC3339))
		}
		now, err := show(ctx)
		switch {
		case err != nil && ctx.Err() != nil:
			// Ended while reading: the end of the watch, not a failure.
			return unreadable, nil
		case err != nil:
			return unreadable, err
		}
		if !slices.Equal(now, unreadable) && len(now) > 0 {
			fmt.Fprintf(e.p.stderr, "warning: could not read %s: the output leaves out what depends on it\n", (&partialError{now}).what())
		}
		unreadable = now
		select {
		case <-ctx.Done():
			return unreadable, nil
		case <-events:
			// Let a burst of changes (a transition writes several objects)
			// settle into one redraw.
			select {
			case <-ctx.Done():
				return unreadable, nil
			case <-time.After(200 * time.Millisecond):
			}
		case <-ticker.C:
		}
	}
}

// follow signals events on every change of the objects of list.
func (e *env) follow(ctx context.Context, list client.ObjectList, events chan<- struct{}) {
	for ctx.Err() == nil {
		w, err := e.client.Watch(ctx, list)
		if err != nil {
			select {
			case <-ctx.Done():
				return
			case <-time.After(5 * time.Second):
				continue
			}
		}
		for ev := range w.ResultChan() {
			if ev.Type == watch.Bookmark {
				continue
			}
			select {
			case events <- struct{}{}:
			default:
			}
		}
		w.Stop()
	}
}

// isTerminal reports whether w is a character device, such as a terminal.
func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
