// Package v20170312 stands in for the Tencent Cloud VPC API client that
// flannel's tencentvpc backend (github.com/flannel-io/flannel/pkg/backend/
// tencentvpc, imported as "vpc") compiles against. The real module,
// github.com/tencentcloud/tencentcloud-sdk-go/tencentcloud/vpc v1.3.188, is
// refused by the Go module proxy, so hack/tools/flannel's go.mod replaces it
// with this one so that flannel's unmodified main package can be built.
//
// It declares only what that backend uses: the request, response, route and
// filter types with the fields it reads or sets, their constructors, and a
// client whose every call fails with errUnavailable. No request ever leaves
// the process: asking flanneld for the "tencent-vpc" backend fails with that
// error once the backend first talks to the VPC API. Every other backend is
// unaffected.
package v20170312

import "errors"

// errUnavailable is what every client call returns.
var errUnavailable = errors.New("the Tencent Cloud SDK is not available in this build " +
	"(the Go module proxy refuses it); the tencentvpc backend cannot be used")

// Client is a VPC API client that cannot reach the API.
type Client struct{}

// NewClientWithSecretId returns a client whose calls all fail, together with
// errUnavailable; the client is not nil, so a caller that drops the error
// gets it again from its first call.
func NewClientWithSecretId(secretId, secretKey, region string) (*Client, error) {
	return &Client{}, errUnavailable
}

// Filter narrows a Describe call to objects whose Name field holds one of
// Values.
type Filter struct {
	Name   *string
	Values []*string
}

// Route is one entry of a route table.
type Route struct {
	RouteId              *uint64
	DestinationCidrBlock *string
	GatewayType          *string
	GatewayId            *string
	RouteType            *string
	Enabled              *bool
}

// RouteTable is a route table and its routes.
type RouteTable struct {
	RouteTableId *string
	RouteSet     []*Route
}

// DescribeRouteTablesRequest asks for the route tables matching Filters.
type DescribeRouteTablesRequest struct {
	Filters []*Filter
}

// NewDescribeRouteTablesRequest returns an empty DescribeRouteTablesRequest.
func NewDescribeRouteTablesRequest() *DescribeRouteTablesRequest {
	return &DescribeRouteTablesRequest{}
}

// DescribeRouteTablesResponse wraps the result of DescribeRouteTables.
type DescribeRouteTablesResponse struct {
	Response *DescribeRouteTablesResponseParams
}

// DescribeRouteTablesResponseParams lists the route tables found.
type DescribeRouteTablesResponseParams struct {
	RouteTableSet []*RouteTable
}

// DescribeRouteTables always fails with errUnavailable.
func (c *Client) DescribeRouteTables(request *DescribeRouteTablesRequest) (*DescribeRouteTablesResponse, error) {
	return nil, errUnavailable
}

// CreateRoutesRequest asks to add Routes to the route table RouteTableId.
type CreateRoutesRequest struct {
	RouteTableId *string
	Routes       []*Route
}

// NewCreateRoutesRequest returns an empty CreateRoutesRequest.
func NewCreateRoutesRequest() *CreateRoutesRequest {
	return &CreateRoutesRequest{}
}

// CreateRoutesResponse is the (here always absent) result of CreateRoutes.
type CreateRoutesResponse struct{}

// CreateRoutes always fails with errUnavailable.
func (c *Client) CreateRoutes(request *CreateRoutesRequest) (*CreateRoutesResponse, error) {
	return nil, errUnavailable
}

// DeleteRoutesRequest asks to remove Routes (by RouteId) from the route table
// RouteTableId.
type DeleteRoutesRequest struct {
	RouteTableId *string
	Routes       []*Route
}

// NewDeleteRoutesRequest returns an empty DeleteRoutesRequest.
func NewDeleteRoutesRequest() *DeleteRoutesRequest {
	return &DeleteRoutesRequest{}
}

// DeleteRoutesResponse is the (here always absent) result of DeleteRoutes.
type DeleteRoutesResponse struct{}

// DeleteRoutes always fails with errUnavailable.
func (c *Client) DeleteRoutes(request *DeleteRoutesRequest) (*DeleteRoutesResponse, error) {
	return nil, errUnavailable
}
