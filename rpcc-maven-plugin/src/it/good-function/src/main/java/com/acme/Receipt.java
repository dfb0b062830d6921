package com.acme;

/** An application type registered by list (the plugin's {@code <types>}), not by annotation. */
public record Receipt(String orderId, long cents) {
}
