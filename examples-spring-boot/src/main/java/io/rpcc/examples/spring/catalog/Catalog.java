package io.rpcc.examples.spring.catalog;

import io.rpcc.core.ServiceMethod;
import io.rpcc.examples.spring.api.Pricing;
import io.rpcc.examples.spring.model.CatalogueImport;
import io.rpcc.examples.spring.model.Order;
import io.rpcc.examples.spring.model.PricedOrder;
import io.rpcc.spring.boot.RpccService;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;

/**
 * The catalog's service: the price of an order (service function "price", declared by its
 * {@link Pricing} interface), and the import of a catalogue file streamed to it ("importCatalogue").
 */
@RpccService
public class Catalog implements Pricing {
    private static final Map<String, Long> PRICES_CENTS = Map.of("KB-42", 4999L, "MOUSE-7", 1999L);

    /** Prices {@code order}; an unknown SKU fails the chain with a ServiceFunctionException naming it. */
    @Override
    public PricedOrder price(Order order) {
        Long unit = PRICES_CENTS.get(order.sku());
        if (unit == null) {
            throw new IllegalArgumentException("no such product: " + order.sku());
        }
        return new PricedOrder(order, unit * order.quantity());
    }

    /**
     * Reads catalogue file {@code name}, one {@code SKU;cents} line per product, from the hop's data
     * stream as it arrives (the method's last parameter is an {@code InputStream}, so the starter
     * registers it as a streaming service function): the file is never held whole here.
     */
    @ServiceMethod("importCatalogue")
    public CatalogueImport importCatalogue(String name, InputStream data) throws IOException {
        MessageDigest sha256;
        try {
            sha256 = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        CountingStream counted = new CountingStream(new DigestInputStream(data, sha256));
        int products = 0;
        long totalCents = 0;
        BufferedReader lines = new BufferedReader(new InputStreamReader(counted, StandardCharsets.UTF_8));
        for (String line; (line = lines.readLine()) != null; ) {
            if (line.isBlank()) {
                continue;
            }
            int semicolon = line.indexOf(';');
            if (semicolon < 1) {
                throw new IllegalArgumentException("catalogue " + name + ", line " + (products + 1)
                        + ": expected SKU;cents, got \"" + line + "\"");
            }
            totalCents += Long.parseLong(line.substring(semicolon + 1).trim());
            products++;
        }
        return new CatalogueImport(name, products, counted.count, HexFormat.of().formatHex(sha256.digest()), totalCents);
    }

    /** Counts the bytes read through it. */
    private static final class CountingStream extends java.io.FilterInputStream {
        long count;

        CountingStream(InputStream in) {
            super(in);
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0) {
                count++;
            }
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = super.read(b, off, len);
            if (n > 0) {
                count += n;
            }
            return n;
        }
    }
}
