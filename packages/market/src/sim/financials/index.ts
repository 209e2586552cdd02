export { companyStatements, financialsByCompany, generateFinancials, hasFinancials } from './generate.ts';
export * from './statements.ts';
