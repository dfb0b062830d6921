package io.rpcc.spring.boot.autoconfigure.scan;

import io.rpcc.core.RpccType;
import java.util.List;

/** A record registered by the package scan with an explicit id, and a nested one. */
@RpccType(id = 321)
public record Invoice(String id, List<Line> lines) {

    /** A static nested record: an independent class, found by the scan too. */
    @RpccType
    public record Line(String sku, int quantity) {
    }
}
