// The account's glossary: read it, replace it (the terms arrive normalized and within the limits,
// glossaryBodySchema). An upload's job keeps its own terms, else these (jobs/upload-usecases.ts).
import type { GlossaryRepository } from "./repository.ts";

export class GlossaryService {
  constructor(private readonly repo: GlossaryRepository) {}

  async get(userId: string): Promise<{ terms: string[] }> {
    return { terms: await this.repo.read(userId) };
  }

  async replace(userId: string, terms: string[]): Promise<{ terms: string[] }> {
    return { terms: await this.repo.write(userId, terms) };
  }
}
