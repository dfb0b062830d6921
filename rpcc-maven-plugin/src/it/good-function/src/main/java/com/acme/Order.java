package com.acme;

import io.rpcc.core.RpccType;

/** An application type, registered by its annotation. */
@RpccType
public record Order(String id, long cents) {
}
