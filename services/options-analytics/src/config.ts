import { Type } from '@sinclair/typebox';

/** Variables of the options service and its data tool, besides the common and database ones. */
export const optionsConfig = {
  RISK_FREE_RATE: Type.Number({
    default: 0.065,
    minimum: -0.05,
    maximum: 0.5,
    description:
      'Continuously compounded risk-free rate (a fraction) for discounting and Greeks; the generator prices with it too',
  }),
};

export const DEFAULT_SCHEMA = 'options';
