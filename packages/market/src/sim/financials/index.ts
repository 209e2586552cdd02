export { companyStatements, financialsByCompany, generateFinancials, hasFinancials } from './generate.ts';
export * from './results.ts';
export * from './statements.ts';
