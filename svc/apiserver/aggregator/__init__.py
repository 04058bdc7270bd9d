"""The aggregation layer: APIService objects, proxying to extension API servers, merged discovery."""
