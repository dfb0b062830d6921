package io.rpcc.core.scan;

import io.rpcc.core.RpccType;

/** A type registered by {@code TypeRegistryScanTest}'s package scan, with its name-derived id. */
@RpccType
public record ScannedOrder(String id, long cents) {
}
