package io.rpcc.spring.boot.autoconfigure.scan;

import io.rpcc.core.RpccType;

/** A top-level record registered by the package scan, with its name-derived id. */
@RpccType
public record Quote(String sku, long cents) {
}
