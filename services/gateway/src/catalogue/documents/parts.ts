import { type SchemaOptions, type TProperties, type TSchema, Type } from '@sinclair/typebox';

/** An object with exactly these properties: an undocumented field fails the contract tests. */
export const closed = <T extends TProperties>(properties: T, options: SchemaOptions = {}) =>
  Type.Object(properties, { additionalProperties: false, ...options });

export const nullable = <T extends TSchema>(schema: T, options: SchemaOptions = {}) =>
  Type.Union([schema, Type.Null()], options);

export const isoDate = (description?: string) =>
  Type.String({ format: 'date', ...(description ? { description } : {}) });

export const timestamp = (description?: string) =>
  Type.String({ format: 'date-time', ...(description ? { description } : {}) });

/** Crore of rupees, two decimals. */
export const crore = (description = 'Crore of rupees') => Type.Number({ description });
