/**
 * The sample's serializable types, each annotated with {@code @RpccType}: every application registers
 * them by scanning this package ({@code rpcc.types-packages=io.rpcc.examples.spring.model}).
 */
package io.rpcc.examples.spring.model;
