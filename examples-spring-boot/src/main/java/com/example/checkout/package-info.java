/**
 * The checkout chain's chaining function ({@link com.example.checkout.Checkout}), kept in a package of
 * its own as an application's ordinary code: checked at build time by the rpcc-maven-plugin and shipped
 * to the servers as source.
 */
package com.example.checkout;
