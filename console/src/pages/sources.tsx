// Placeholder until its page is written.
import { PageHeader } from '../components/ui';

export default function SourcesPage() {
  return <PageHeader title="Sources" />;
}
