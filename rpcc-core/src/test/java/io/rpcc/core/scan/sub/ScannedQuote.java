package io.rpcc.core.scan.sub;

import io.rpcc.core.RpccType;

/** A type in a sub-package, registered by the scan with its explicit id. */
@RpccType(id = 321)
public record ScannedQuote(String sku) {
}
