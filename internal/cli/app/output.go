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
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/utils/ptr"

	"podnetwork.io/operator/internal/cli"
)

// humanFormats are the values of -o that print the human tables: none,
// wide (the same tables: they hold every column already) and text, the
// plugin's name for them before -o went through cli-runtime.
var humanFormats = []string{"", "wide", "text"}

// output is a command's -o (cli-runtime's PrintFlags: json, yaml, kyaml,
// jsonpath, go-template and their file forms) and how it prints.
type output struct {
	flags *genericclioptions.PrintFlags
}

func addOutputFlags(cmd *cobra.Command) *output {
	o := &output{flags: &genericclioptions.PrintFlags{
		JSONYamlPrintFlags:   genericclioptions.NewJSONYamlPrintFlags(),
		TemplatePrinterFlags: genericclioptions.NewKubeTemplatePrintFlags(),
		OutputFormat:         ptr.To(""),
	}}
	o.flags.AddFlags(cmd)
	cmd.Flags().Lookup("output").Usage = fmt.Sprintf("Output format. One of: (wide, %s). The default, and wide, are the human tables; "+
		"the others print a %s object of apiVersion %s (docs/kubectl-plugin.md).",
		strings.Join(o.flags.AllowedFormats(), ", "), kindOf(cmd.Name()), cli.GroupVersion)
	// The reports have no managedFields.
	_ = cmd.Flags().MarkHidden("show-managed-fields")
	return o
}

func kindOf(command string) string {
	return map[string]string{"status": cli.KindStatusReport, "check": cli.KindCheckReport, "plan": cli.KindPlanReport, "version": cli.KindVersion}[command]
}

// printer returns the printer -o asks for; a wrong -o is a usage error.
// One printer prints every report of a run, so a --watch in YAML separates
// its documents with "---".
func (o *output) printer() (printers.ResourcePrinter, error) {
	if o.human() {
		return printers.ResourcePrinterFunc(printHuman), nil
	}
	p, err := o.flags.ToPrinter()
	if err != nil {
		return nil, usageError{err}
	}
	return p, nil
}

// human reports whether the output is the human tables.
func (o *output) human() bool {
	t := o.flags.TemplatePrinterFlags.TemplateArgument
	return slices.Contains(humanFormats, *o.flags.OutputFormat) && (t == nil || *t == "" || *o.flags.OutputFormat != "")
}

// printHuman prints a report as the human tables.
func printHuman(obj runtime.Object, w io.Writer) error {
	switch r := obj.(type) {
	case *cli.StatusReport:
		return cli.WriteStatusText(w, r)
	case *cli.CheckReport:
		return cli.WriteCheckText(w, r)
	case *cli.PlanReport:
		return cli.WritePlanText(w, r)
	case *cli.Version:
		return cli.WriteVersionText(w, r)
	}
	return fmt.Errorf("no table for a %T", obj)
}
