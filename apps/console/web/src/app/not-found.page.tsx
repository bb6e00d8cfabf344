/** Any path the console does not have. */
import { Anchor, Text } from '@mantine/core';
import { Link } from 'react-router';

import { PageHeader } from '../ui/page-header';

export default function NotFoundPage() {
  return (
    <>
      <PageHeader title="Page not found" />
      <Text>
        This address is not a page of the console. Go to{' '}
        <Anchor component={Link} to="/workspaces">
          your workspaces
        </Anchor>
        .
      </Text>
    </>
  );
}
